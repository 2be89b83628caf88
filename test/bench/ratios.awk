# ratios.awk turns the output of `go test -bench BenchmarkPatch -benchmem` (any -count) into the markdown
# tables of RESULTS.md: the median of each measure per implementation and case, and the ratios of the
# capkit variants to Cluster API's patch helper (below 1: capkit is cheaper). POSIX awk.
#
#	go test ./bench/ -run '^$' -bench BenchmarkPatch -benchtime=200x -benchmem -count=5 | tee patch.txt
#
# (BenchmarkPatch/<case>/<impl>; the no-change case reuses one fake client, so give it more iterations:
# -benchtime=200x measures 200 no-op reconciles per run.)
#	awk -f bench/ratios.awk patch.txt

/^BenchmarkPatch\// {
	name = $1
	sub(/-[0-9]+$/, "", name)
	split(name, part, "/")
	kase = part[2]; impl = part[3]
	if (!(impl in seenImpl)) { seenImpl[impl] = 1; impls[++nImpl] = impl }
	if (!(kase in seenCase)) { seenCase[kase] = 1; cases[++nCase] = kase }
	for (i = 3; i < NF; i += 2) {
		unit = $(i + 1)
		if (unit != "ns/op" && unit != "B/op" && unit != "allocs/op") continue
		k = impl SUBSEP kase SUBSEP unit
		vals[k, ++n[k]] = $i + 0
	}
}

function median(k,    m, i, j, t, a) {
	m = n[k]
	if (m == 0) return -1
	for (i = 1; i <= m; i++) a[i] = vals[k, i]
	for (i = 2; i <= m; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
	if (m % 2) return a[(m + 1) / 2]
	return (a[m / 2] + a[m / 2 + 1]) / 2
}

function ratio(impl, kase, unit,    base, v) {
	base = median("capi" SUBSEP kase SUBSEP unit)
	v = median(impl SUBSEP kase SUBSEP unit)
	if (base <= 0 || v < 0) return "n/a"
	return sprintf("%.2f", v / base)
}

END {
	units[1] = "ns/op"; units[2] = "B/op"; units[3] = "allocs/op"
	print "Ratios to capi (median of " n["capi" SUBSEP cases[1] SUBSEP "ns/op"] " runs; below 1 is cheaper):"
	print ""
	line = "| case |"; sep = "|---|"
	for (i = 1; i <= nImpl; i++) {
		if (impls[i] == "capi") continue
		for (u = 1; u <= 3; u++) { line = line " " impls[i] " " units[u] " |"; sep = sep "---:|" }
	}
	print line; print sep
	for (c = 1; c <= nCase; c++) {
		line = "| " cases[c] " |"
		for (i = 1; i <= nImpl; i++) {
			if (impls[i] == "capi") continue
			for (u = 1; u <= 3; u++) line = line " " ratio(impls[i], cases[c], units[u]) " |"
		}
		print line
	}
	print ""
	print "Medians:"
	print ""
	print "| impl | case | ns/op | B/op | allocs/op |"
	print "|---|---|---:|---:|---:|"
	for (i = 1; i <= nImpl; i++)
		for (c = 1; c <= nCase; c++)
			printf "| %s | %s | %.0f | %.0f | %.0f |\n", impls[i], cases[c],
				median(impls[i] SUBSEP cases[c] SUBSEP "ns/op"),
				median(impls[i] SUBSEP cases[c] SUBSEP "B/op"),
				median(impls[i] SUBSEP cases[c] SUBSEP "allocs/op")
}
