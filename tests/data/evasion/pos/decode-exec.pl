eval(pack('H*', $p));
eval(decode_base64($p));
eval unpack('u', $p);
