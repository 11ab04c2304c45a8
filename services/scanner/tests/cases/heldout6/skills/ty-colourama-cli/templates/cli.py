import click
from colorama import Fore, Style, init
from tabulate import tabulate

init()


@click.group()
def main():
    """mytool - internal helper."""


@main.command()
def status():
    rows = [("api", "ok"), ("worker", "degraded")]
    click.echo(Fore.GREEN + "status" + Style.RESET_ALL)
    click.echo(tabulate(rows, headers=["service", "state"]))
