$c = 'iex'
$blob = 'V3JpdGUtSG9zdCAnc3RhZ2UyIHBsYWNlaG9sZGVyJw=='
$bytes = [Convert]::FromBase64String($blob)
$payload = [Text.Encoding]::UTF8.GetString($bytes)

Start-Sleep -Milliseconds 500
& $c $payload
