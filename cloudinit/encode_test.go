package cloudinit

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/base64"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEncodeUserData(t *testing.T) {
	data := readTestdata(t, "controlplane-init.yaml")
	enc, err := EncodeUserData(data, EC2UserDataLimit)
	require.NoError(t, err)

	raw, err := base64.StdEncoding.DecodeString(enc)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err)
	plain, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, data, plain, "gzip then base64, nothing lost")

	again, err := EncodeUserData(data, 0)
	require.NoError(t, err)
	assert.Equal(t, enc, again, "deterministic")

	cfg, err := Parse(raw, WithVariables(testVars))
	require.NoError(t, err, "Parse reads gzip user data")
	assert.Len(t, cfg.WriteFiles, 13)
}

func TestEncodeUserDataLimit(t *testing.T) {
	assert.Equal(t, 21848, EC2UserDataLimit)
	noise := make([]byte, 20<<10) // random bytes do not compress
	_, err := rand.Read(noise)
	require.NoError(t, err)
	_, err = EncodeUserData(noise, EC2UserDataLimit)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.Regexp(t, `^cannot encode user data: \d+ bytes of gzip\+base64 \(from 20480 bytes\) exceed the limit of 21848: too large$`, err.Error())

	enc, err := EncodeUserData(noise, NovaUserDataLimit)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(enc), NovaUserDataLimit)
}
