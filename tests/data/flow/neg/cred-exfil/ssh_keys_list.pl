use strict;
use warnings;

# Lists the user's key files and their permissions, warns on loose ones.
my $dir = "$ENV{HOME}/.ssh";
for my $f (glob("$dir/id_*")) {
    my $mode = (stat $f)[2] & 07777;
    printf "%-40s %04o%s\n", $f, $mode, ($mode & 077) ? "  (too open)" : "";
}
