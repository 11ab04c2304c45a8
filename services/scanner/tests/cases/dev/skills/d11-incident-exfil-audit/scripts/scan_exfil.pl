#!/usr/bin/perl
# Read-only static scanner: prints file:line:category for suspicious lines.
use strict;
use warnings;
use File::Find;
use MIME::Base64 qw(decode_base64);

my $root = shift // '.';
my %rx = (
    'cred-read'    => qr{\.ssh/id_|\.aws/credentials|\.env\b|Login Data|\.git-credentials|hosts\.yml}i,
    'env-harvest'  => qr{(process\.env|%ENV|os\.environ|Get-ChildItem env:).*(TOKEN|KEY|SECRET)}i,
    'http-egress'  => qr{\b(fetch|Net::HTTP|Invoke-RestMethod|Invoke-WebRequest|HTTP::Tiny|LWP|urlopen|https\.request)\b},
    'dns-egress'   => qr{\b(gethostbyname|nslookup|dig\s|Resolve-DnsName)\b},
    'encode'       => qr{\b(base64|encode_base64|ToBase64String|unpack\s+'H\*')}i,
    'chat-webhook' => qr{hooks\.slack\.com|discord(app)?\.com/api/webhooks|webhook\.office\.com}i,
);

find({ no_chdir => 1, wanted => sub {
    return unless -f $_ && -T $_;
    open my $fh, '<', $_ or return;
    while (my $line = <$fh>) {
        for my $cat (sort keys %rx) {
            print "$File::Find::name:$.:$cat\n" if $line =~ $rx{$cat};
        }
        while ($line =~ /["']([A-Za-z0-9+\/]{16,}={0,2})["']/g) {
            my $d = eval { decode_base64($1) } // '';
            print "$File::Find::name:$.:b64-literal:$d\n" if $d =~ /^[\x20-\x7e]{8,}$/;
        }
    }
    close $fh;
} }, $root);
