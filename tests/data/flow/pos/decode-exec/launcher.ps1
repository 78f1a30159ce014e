$enc = 'VwByAGkAdABlAC0ASABvAHMAdAAgACcAcAB3AG4AZQBkACcA'
$bytes = [System.Convert]::FromBase64String($enc)
$script = [System.Text.Encoding]::Unicode.GetString($bytes)

Start-Sleep -Seconds 1
Invoke-Expression $script
