# Restores a certificate shipped as base64 in the config, for the local store.
$cfg = Get-Content -Raw .\cert.json | ConvertFrom-Json
$der = [SYSTEM.CONVERT]::FROMBASE64STRING($cfg.certificate)
[io.file]::WRITEALLBYTES("$PWD\client.cer", $der)
Write-Host "wrote client.cer ($($der.Length) bytes)"
