# Microsoft.PowerShell_profile.ps1
Set-Alias ll Get-ChildItem
Set-Alias g git
sal which Get-Command
New-Alias -Name np -Value notepad.exe -ErrorAction SilentlyContinue

function prompt {
    $branch = (g rev-parse --abbrev-ref HEAD 2>$null)
    $loc = (Get-Location).Path
    if ($branch) { "$loc [$branch]> " } else { "$loc> " }
}

$c = 'Get-Date'
Write-Host "session started $(& $c -Format 'yyyy-MM-dd HH:mm')"
