function New-RequestId {
    param([int]$Length = 16)
    $rng = [System.Security.Cryptography.RandomNumberGenerator]::Create()
    $bytes = New-Object byte[] $Length
    $rng.GetBytes($bytes)
    $ticks = [BitConverter]::GetBytes([DateTime]::UtcNow.Ticks)
    for ($i = 0; $i -lt $ticks.Length; $i++) {
        $bytes[$i] = $bytes[$i] -bxor $ticks[$i] -bxor 0x5a
    }
    # RFC 4122 version 4 / variant bits
    $bytes[6] = ($bytes[6] -band 0x0f) -bor 0x40
    $bytes[8] = ($bytes[8] -band 0x3f) -bor 0x80
    $hex = -join ($bytes | ForEach-Object { $_.ToString('x2') })
    '{0}-{1}-{2}-{3}-{4}' -f $hex.Substring(0, 8), $hex.Substring(8, 4),
        $hex.Substring(12, 4), $hex.Substring(16, 4), $hex.Substring(20, 12)
}

$id = New-RequestId
Write-Host "X-Request-Id: $id"
Invoke-RestMethod -Uri 'https://api.example.com/v1/ping' -Headers @{ 'X-Request-Id' = $id }
