package patch

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMainPatchRemovesMetadataMapsKeyByKey(t *testing.T) {
	tests := []struct {
		name          string
		before, after string // metadata
		want          string // the main patch, "" for none
	}{
		{"last annotation removed", `{"name":"m","annotations":{"a":"1"}}`, `{"name":"m"}`, `{"metadata":{"annotations":{"a":null}}}`},
		{"last labels removed", `{"name":"m","labels":{"a":"1","b":"2"}}`, `{"name":"m"}`, `{"metadata":{"labels":{"a":null,"b":null}}}`},
		{"both", `{"labels":{"a":"1"},"annotations":{"b":"2"}}`, `{}`, `{"metadata":{"annotations":{"b":null},"labels":{"a":null}}}`},
		{"one of two removed", `{"annotations":{"a":"1","b":"2"}}`, `{"annotations":{"b":"2"}}`, `{"metadata":{"annotations":{"a":null}}}`},
		{"empty map removed", `{"name":"m","annotations":{}}`, `{"name":"m"}`, ""},
		{"other field removed", `{"name":"m","generateName":"m-"}`, `{"name":"m"}`, `{"metadata":{"generateName":null}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := map[string]json.RawMessage{"metadata": json.RawMessage(tt.before)}
			after := map[string]json.RawMessage{"metadata": json.RawMessage(tt.after)}
			got, err := mainPatch(before, after)
			require.NoError(t, err)
			if tt.want == "" {
				assert.Nil(t, got)
				return
			}
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}
