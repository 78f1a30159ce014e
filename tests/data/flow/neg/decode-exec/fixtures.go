package codec

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"io"
	"testing"
)

func TestGunzipFixture(t *testing.T) {
	raw, err := hex.DecodeString("1f8b08000000000000ff4b4cca0600c241243503000000")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(zr)
	if string(got) != "abc" {
		t.Fatalf("got %q", got)
	}
}
