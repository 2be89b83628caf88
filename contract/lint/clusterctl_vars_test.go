package lint_test

import (
	"strings"
	"testing"

	"github.com/capkit/capkit/contract/lint"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScanVariablesAccepted(t *testing.T) {
	tests := []struct {
		in   string
		want []lint.Variable
	}{
		{"name: ${CLUSTER_NAME}", []lint.Variable{{Name: "CLUSTER_NAME", Line: 1}}},
		{"a: ${ NAMESPACE }\nb: ${ NAMESPACE}\nc: ${NAMESPACE }", []lint.Variable{{Name: "NAMESPACE", Line: 1}}},
		{"replicas: ${WORKER_MACHINE_COUNT:=1}", []lint.Variable{{Name: "WORKER_MACHINE_COUNT", Line: 1, HasDefault: true}}},
		{"x: ${A:-}\ny: ${B=b}", []lint.Variable{{Name: "A", Line: 1, HasDefault: true}, {Name: "B", Line: 2, HasDefault: true}}},
		{"x: ${A}\ny: ${A:=a}", []lint.Variable{{Name: "A", Line: 1, HasDefault: true}}},
		{"x: ${A:=${B}-suffix}", []lint.Variable{{Name: "A", Line: 1, HasDefault: true}, {Name: "B", Line: 1}}},
		{"x: ${A:=prefix${B:-b}}", []lint.Variable{{Name: "A", Line: 1, HasDefault: true}, {Name: "B", Line: 1, HasDefault: true}}},
		{"x: ${#A} ${A^^} ${A,} ${A:1} ${A:1:2} ${A/x/y} ${A//x} ${A#*.} ${A%%.*}", []lint.Variable{{Name: "A", Line: 1}}},
		{"literal: $${NOT_A_VAR} and $$HOME and 100$", nil},
		{"shell: echo $HOME $PATH $lower $1 $(date) ${ok}", []lint.Variable{{Name: "ok", Line: 1}}},
		{"# comment ${IN_COMMENT}\n", []lint.Variable{{Name: "IN_COMMENT", Line: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			vars, issues := lint.ScanVariables([]byte(tt.in))
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
		{"a: 1\nimage: ${TAG", lint.RuleVariableSyntax, 2, `"${TAG": no closing } after the variable name "TAG"; clusterctl rejects the whole file with "bad substitution"`},
		{"image: ${TAG\nnext: line", lint.RuleVariableSyntax, 1, `no closing } after the variable name "TAG"`},
		{"x: ${}", lint.RuleVariableSyntax, 1, `"${}": no variable name after ${`},
		{"x: ${ }", lint.RuleVariableSyntax, 1, `no variable name after ${`},
		{"x: ${A B}", lint.RuleVariableSyntax, 1, `spaces are allowed around a plain variable name only`},
		{"x: ${ A:=b }", lint.RuleVariableSyntax, 1, `spaces are allowed around a plain variable name only`},
		{"x: ${A.B}", lint.RuleVariableSyntax, 1, `unexpected '.' after the variable name "A"`},
		{"x: ${A:=b", lint.RuleVariableSyntax, 1, `no closing }`},
		{"x: ${A:=${B}", lint.RuleVariableSyntax, 1, `no closing }`},
		{"x: ${A:=${}}", lint.RuleVariableSyntax, 1, `no variable name`},
		{"x: ${VAR-default}", lint.RuleVariableUnsupported, 1, `"${VAR-default}" is read by clusterctl as the variable "VAR-default", not as VAR with a default: write ${VAR:-default} or ${VAR:=default}`},
		{"x: ${VAR:?required}", lint.RuleVariableUnsupported, 1, `"${VAR:?required}": clusterctl (drone/envsubst) does not evaluate ${VAR:?…}`},
		{"x: ${VAR:+alt}", lint.RuleVariableUnsupported, 1, `does not evaluate ${VAR:+…}`},
		{"\n\nx: $REGION-a", lint.RuleVariableUnbraced, 3, `$REGION is left as it is by clusterctl, which substitutes only ${REGION}: write ${REGION} if it is a clusterctl variable`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, issues := lint.ScanVariables([]byte(tt.in))
			require.NotEmpty(t, issues)
			assert.Equal(t, tt.rule, issues[0].Rule)
			assert.Equal(t, tt.line, issues[0].Line)
			assert.Contains(t, issues[0].Message, tt.msg)
		})
	}
}

func TestScanVariablesContinuesAfterAnIssue(t *testing.T) {
	in := "a: ${A\nb: ${B}\nc: $C\nd: ${D-x}\n"
	vars, issues := lint.ScanVariables([]byte(in))
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
		lint.ScanVariables(data)
	}
}
