package main

import (
	"fmt"
	"os"
	ex "os/exec"
	str "strings"
)

func describe() (string, error) {
	out, err := ex.Command("git", "describe", "--tags", "--always", "--dirty").Output()
	if err != nil {
		return "", err
	}
	return str.TrimSpace(string(out)), nil
}

func main() {
	v, err := describe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "not a git checkout:", err)
		v = "dev"
	}
	fmt.Printf("-X main.version=%s\n", v)
}
