import (
	ex "os/exec"
	h "net/http"
)
import b64 "encoding/base64"
func main() { ex.Command("sh","-c",s).Run(); h.Get(u); b64.StdEncoding.DecodeString(p) }
