$cmd = Get-Command git -ErrorAction SilentlyContinue
& $cmd status
& (Join-Path $PSScriptRoot "build.ps1") -Configuration Release
Invoke-WebRequest -Uri https://example.org/tool.zip -OutFile tool.zip
Get-FileHash tool.zip -Algorithm SHA256
$env:PATH = "$env:USERPROFILE\bin;$env:PATH"
Write-Host ("Hello, " + "world")
