param([string]$HostName = 'localhost', [int]$Port = 443)

$client = New-Object System.Net.Sockets.TcpClient
try {
    $client.Connect($HostName, $Port)
    Write-Host "$HostName`:$Port is open"
} catch {
    Write-Warning "$HostName`:$Port is closed: $($_.Exception.Message)"
} finally {
    $client.Dispose()
}
