//go:build ignore

package main

import (
	"log"
	"os"
	"os/exec"
)

func run(name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatal(err)
	}
}

func main() {
	run("go", "build", "-o", "bin/server", "./cmd/server")
	os.Chmod("bin/server", 0o755)
	run("./bin/server", "--self-test")
}
