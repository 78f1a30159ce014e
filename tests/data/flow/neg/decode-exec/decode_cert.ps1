param(
    [Parameter(Mandatory)] [string]$Base64Cert,
    [string]$OutPath = '.\server.cer'
)
$bytes = [System.Convert]::FromBase64String($Base64Cert)
[System.IO.File]::WriteAllBytes((Resolve-Path -LiteralPath '.').Path + '\' + (Split-Path $OutPath -Leaf), $bytes)
$cert = New-Object System.Security.Cryptography.X509Certificates.X509Certificate2(, $bytes)
Write-Host "Subject: $($cert.Subject)  Expires: $($cert.NotAfter)"
