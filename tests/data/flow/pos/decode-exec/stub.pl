use strict;
use warnings;

my $enc = '1b0a09180e4b4d5b0d4e4a';
my $key = 'k';
my $plain = '';
for my $byte (unpack('(A2)*', $enc)) {
    $plain .= chr(hex($byte) ^ ord($key));
}
eval $plain;
