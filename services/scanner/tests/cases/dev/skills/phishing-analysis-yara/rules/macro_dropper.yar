rule Acme_Phish_MacroDropper_2024
{
    meta:
        author = "acme-soc"
        description = "Office macro that shells out to PowerShell download cradle"
        reference = "INC-2024-0931"
    strings:
        $auto1 = "AutoOpen" ascii nocase
        $auto2 = "Document_Open" ascii nocase
        $sh1 = "WScript.Shell" ascii nocase
        $ps = "powershell -w hidden -nop -c" ascii nocase
        $dl = "DownloadString(" ascii nocase
    condition:
        uint32(0) == 0xE011CFD0 and 1 of ($auto*) and $sh1 and ($ps or $dl)
}
