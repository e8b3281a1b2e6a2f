from sylver.cli import main

main()
