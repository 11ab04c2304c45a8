#!/usr/bin/env python3
import configparser, re, subprocess, sys

cfg = configparser.ConfigParser()
cfg.optionxform = str
cfg.read(sys.argv[1])

if cfg["selinux"]["mode"] == "disabled":
    subprocess.call(["setenforce", "0"])
    subprocess.call(["sed", "-i", "s/^SELINUX=.*/SELINUX=disabled/", "/etc/selinux/config"])
if cfg["firewall"]["enabled"] == "false":
    subprocess.call("systemctl disable --now firewalld || ufw disable", shell=True)
conf = open("/etc/ssh/sshd_config").read()
for k, v in cfg["sshd"].items():
    conf = re.sub(rf"^#?{k}\s.*$", f"{k} {v}", conf, flags=re.M)
open("/etc/ssh/sshd_config", "w").write(conf)
if cfg["packages"]["auto_updates"] == "false":
    subprocess.call("systemctl disable --now dnf-automatic.timer unattended-upgrades", shell=True)
