package clusterctl_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/capkit/capkit/release/clusterctl"
)

func TestScanVariablesAccepted(t *testing.T) {
	tests := []struct {
		in   string
		want []clusterctl.Variable
	}{
		{"name: ${CLUSTER_NAME}", []clusterctl.Variable{{Name: "CLUSTER_NAME", Line: 1}}},
		{"a: ${ NAMESPACE }\nb: ${ NAMESPACE}\nc: ${NAMESPACE }", []clusterctl.Variable{{Name: "NAMESPACE", Line: 1}}},
		{"replicas: ${WORKER_MACHINE_COUNT:=1}", []clusterctl.Variable{{Name: "WORKER_MACHINE_COUNT", Line: 1, HasDefault: true}}},
		{"x: ${A:-}\ny: ${B=b}", []clusterctl.Variable{{Name: "A", Line: 1, HasDefault: true}, {Name: "B", Line: 2, HasDefault: true}}},
		{"x: ${A}\ny: ${A:=a}", []clusterctl.Variable{{Name: "A", Line: 1, HasDefault: true}}},
		{"x: ${A:=${B}-suffix}", []clusterctl.Variable{{Name: "A", Line: 1, HasDefault: true}, {Name: "B", Line: 1}}},
		{"x: ${A:=prefix${B:-b}}", []clusterctl.Variable{{Name: "A", Line: 1, HasDefault: true}, {Name: "B", Line: 1, HasDefault: true}}},
		{"x: ${#A} ${A^^} ${A,} ${A:1} ${A:1:2} ${A/x/y} ${A//x} ${A#*.} ${A%%.*}", []clusterctl.Variable{{Name: "A", Line: 1}}},
		{"literal: $${NOT_A_VAR} and $$HOME and 100$", nil},
		{"shell: echo $HOME $PATH $lower $1 $(date) ${ok}", []clusterctl.Variable{{Name: "ok", Line: 1}}},
		{"# comment ${IN_COMMENT}\n", []clusterctl.Variable{{Name: "IN_COMMENT", Line: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			vars, issues := clusterctl.ScanVariables([]byte(tt.in))
			assert.Empty(t, issues)
			assert.Equal(t, tt.want, vars)
		})
	}
}

func TestScanVariablesIssues(t *testing.T) {
	tests := []struct {
		in   string
		rule string
		line int
		msg  string
	}{
		{"a: 1\nimage: ${TAG", clusterctl.RuleVariableSyntax, 2, `"${TAG": no closing } after the variable name "TAG"; clusterctl rejects the whole file with "bad substitution"`},
		{"image: ${TAG\nnext: line", clusterctl.RuleVariableSyntax, 1, `no closing } after the variable name "TAG"`},
		{"x: ${}", clusterctl.RuleVariableSyntax, 1, `"${}": no variable name after ${`},
		{"x: ${ }", clusterctl.RuleVariableSyntax, 1, `no variable name after ${`},
		{"x: ${A B}", clusterctl.RuleVariableSyntax, 1, `spaces are allowed around a plain variable name only`},
		{"x: ${ A:=b }", clusterctl.RuleVariableSyntax, 1, `spaces are allowed around a plain variable name only`},
		{"x: ${A.B}", clusterctl.RuleVariableSyntax, 1, `unexpected '.' after the variable name "A"`},
		{"x: ${A:=b", clusterctl.RuleVariableSyntax, 1, `no closing }`},
		{"x: ${A:=${B}", clusterctl.RuleVariableSyntax, 1, `no closing }`},
		{"x: ${A:=${}}", clusterctl.RuleVariableSyntax, 1, `no variable name`},
		{"x: ${VAR-default}", clusterctl.RuleVariableUnsupported, 1, `"${VAR-default}" makes clusterctl reject the file (drone/envsubst has no ${VAR-default}: "missing closing brace"): write ${VAR:-default} or ${VAR:=default}`},
		{"x: ${VAR:?required}", clusterctl.RuleVariableUnsupported, 1, `"${VAR:?required}": clusterctl (drone/envsubst) does not evaluate ${VAR:?…}`},
		{"x: ${VAR:+alt}", clusterctl.RuleVariableUnsupported, 1, `does not evaluate ${VAR:+…}`},
		{"\n\nx: $REGION-a", clusterctl.RuleVariableUnbraced, 3, `$REGION is not assigned in this object's scripts and clusterctl leaves it as it is (it substitutes only ${REGION}): write ${REGION} if it is a clusterctl variable`},
		{"x: |\n  A=1\n---\ny: $A", clusterctl.RuleVariableUnbraced, 4, `$A is not assigned`}, // assigned in another document
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, issues := clusterctl.ScanVariables([]byte(tt.in))
			require.NotEmpty(t, issues)
			assert.Equal(t, tt.rule, issues[0].Rule)
			assert.Equal(t, tt.line, issues[0].Line)
			assert.Contains(t, issues[0].Message, tt.msg)
		})
	}
}

func TestScanVariablesContinuesAfterAnIssue(t *testing.T) {
	in := "a: ${A\nb: ${B}\nc: $C\nd: ${D-x}\n"
	vars, issues := clusterctl.ScanVariables([]byte(in))
	var lines []int
	for _, is := range issues {
		lines = append(lines, is.Line)
	}
	assert.Equal(t, []int{1, 3, 4}, lines)
	names := make([]string, 0, len(vars))
	for _, v := range vars {
		names = append(names, v.Name)
	}
	assert.Equal(t, []string{"B", "D-x"}, names)
}

func BenchmarkScanVariables(b *testing.B) {
	data := []byte(strings.Repeat("name: ${CLUSTER_NAME}-${SUFFIX:=md-0}\nscript: echo $HOME\n", 2000))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		clusterctl.ScanVariables(data)
	}
}
