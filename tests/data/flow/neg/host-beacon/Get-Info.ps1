param([string]$OutFile = "$PWD\inventory.csv")

$info = Get-ComputerInfo -Property CsName, OsName, OsVersion, CsTotalPhysicalMemory
[PSCustomObject]@{
    Name    = $info.CsName
    OS      = $info.OsName
    Version = $info.OsVersion
    RAMGB   = [math]::Round($info.CsTotalPhysicalMemory / 1GB, 1)
    User    = $env:USERNAME
} | Export-Csv -Path $OutFile -NoTypeInformation -Append

Write-Host "inventory appended to $OutFile"
