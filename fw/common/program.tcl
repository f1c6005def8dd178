# Loads a board image over JTAG (the board's USB-JTAG, through a local hw_server):
#   vivado -mode batch -source fw/common/program.tcl -tclargs <bitstream> [<flash image> <flash part>]
# With a flash image it writes the configuration flash instead, so the image survives power
# cycles (the host must then be rebooted, or the device rescanned, to enumerate it).
set bit [lindex $argv 0]
open_hw_manager
connect_hw_server
open_hw_target
set dev [lindex [get_hw_devices -filter {PART =~ xc*}] 0]
current_hw_device $dev
if {[llength $argv] >= 3} {
    set mcs [lindex $argv 1]
    set flash [lindex $argv 2]
    create_hw_cfgmem -hw_device $dev [lindex [get_cfgmem_parts $flash] 0]
    set mem [get_property PROGRAM.HW_CFGMEM $dev]
    set_property PROGRAM.FILES [list $mcs] $mem
    set_property PROGRAM.ADDRESS_RANGE {use_file} $mem
    set_property PROGRAM.ERASE 1 $mem
    set_property PROGRAM.CFG_PROGRAM 1 $mem
    set_property PROGRAM.VERIFY 1 $mem
    create_hw_bitstream -hw_device $dev [get_property PROGRAM.HW_CFGMEM_BITFILE $dev]
    program_hw_devices $dev
    program_hw_cfgmem -hw_cfgmem $mem
} else {
    set_property PROGRAM.FILE $bit $dev
    program_hw_devices $dev
}
close_hw_target
exit 0
