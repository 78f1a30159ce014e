module github.com/acme/statusctl

go 1.22

require (
	github.com/spf13/cobra v1.8.1
	golang.org/x/sync v0.7.0
)
