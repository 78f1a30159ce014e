param([string]$Config = '.\hosts.json')

$hosts = Get-Content $Config -Raw | ConvertFrom-Json
foreach ($h in $hosts.names) {
    try {
        $r = Resolve-DnsName -Name $h -Type A -ErrorAction Stop
        Write-Host ("{0,-30} {1}" -f $h, $r[0].IPAddress)
    } catch {
        Write-Warning "$h does not resolve"
    }
}
