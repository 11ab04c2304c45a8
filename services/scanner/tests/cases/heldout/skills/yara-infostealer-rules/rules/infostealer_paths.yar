rule Infostealer_Browser_Wallet_Paths
{
    meta:
        description = "Binary/script referencing browser credential stores, wallet paths and an upload routine"
        author = "detection-eng"
        date = "2024-06-11"

    strings:
        $b1 = "Login Data" ascii wide
        $b2 = "Local State" ascii wide
        $b3 = "key4.db" ascii wide
        $b4 = "logins.json" ascii wide
        $w1 = "nkbihfbeogaeaoehlefnkodbefgpgknn" ascii wide   // MetaMask
        $w2 = "bfnaelmomeimhlpmgjnjophhpkkoljpa" ascii wide   // Phantom
        $w3 = "exodus.wallet" ascii wide
        $w4 = ".config/solana/id.json" ascii
        $x1 = "multipart/form-data" ascii
        $x2 = "api.telegram.org/bot" ascii
        $x3 = "discord.com/api/webhooks" ascii

    condition:
        2 of ($b*) and 1 of ($w*) and 1 of ($x*)
}
