New-Alias -Name dl -Value Invoke-WebRequest
$g = Get-Command Get-FileHash

$version = '3.2.0'
$zip = Join-Path $PSScriptRoot "tool-$version.zip"
$expected = '0000000000000000000000000000000000000000000000000000000000000000'

dl -Uri "https://github.com/octo-org/tool/releases/download/v$version/tool-win64.zip" -OutFile $zip -UseBasicParsing
$hash = (& $g -Path $zip -Algorithm SHA256).Hash

if ($hash -ne $expected) {
    Remove-Item $zip
    throw "checksum mismatch for $zip"
}
Expand-Archive -Path $zip -DestinationPath (Join-Path $PSScriptRoot 'vendor') -Force
Write-Host "tool $version unpacked"
