#!/usr/bin/perl
# Classroom demo: one-time pad encryption with XOR.
use strict;
use warnings;

my $message = 'ATTACK AT DAWN';
my $pad = join '', map { chr(int(rand(256))) } 1 .. length $message;

sub xor_str {
    my ($a, $b) = @_;
    return join '', map { chr(ord(substr($a, $_, 1)) ^ ord(substr($b, $_, 1))) }
        0 .. length($a) - 1;
}

my $cipher = xor_str($message, $pad);
my $plain  = xor_str($cipher, $pad);

printf "pad:    %s\n", unpack('H*', $pad);
printf "cipher: %s\n", unpack('H*', $cipher);
printf "plain:  %s\n", $plain;

# Reusing the pad leaks the XOR of the two messages.
my $leak = xor_str(xor_str($message, $pad), xor_str('RETREAT AT TEN', $pad));
printf "leak:   %s\n", unpack('H*', $leak);
