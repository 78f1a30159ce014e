$p = 'V3JpdGUtSG9zdCAiaGVsbG8gZnJvbSBzdGFnZSAyIg=='
$bytes = [SYSTEM.CONVERT]::FROMBASE64STRING($p)
$code = [system.text.encoding]::utf8.getstring($bytes)
$sb = [ScriptBlock]::CREATE($code)
. $sb
