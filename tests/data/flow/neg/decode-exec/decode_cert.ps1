param(
    [Parameter(Mandatory)] [string]$Base64Cert,
    [string]$OutPath = '.\server.cer'
)
$bytes = [System.Convert]::FromBase64String($Base64Cert)
$full = $ExecutionContext.SessionState.Path.GetUnresolvedProviderPathFromPSPath($OutPath)
[System.IO.File]::WriteAllBytes($full, $bytes)
$cert = New-Object System.Security.Cryptography.X509Certificates.X509Certificate2(, $bytes)
Write-Host "Subject: $($cert.Subject)  Expires: $($cert.NotAfter)"
