set pagination off
set confirm off
set breakpoint pending on
set cuda break_on_launch none
show cuda value_extrapolation
break dsl.ptx:37
run
cuda thread (7,0,0)
frame
p/x $pc
info line *$pc
maint print cuda_regmap
info registers R2 R3 R9 R10 R11 R12 R13 R16 R17
info locals
set cuda value_extrapolation on
info locals
set cuda value_extrapolation off
delete
kill
break dsl.ptx:30
run
cuda thread (7,0,0)
frame
info locals
info registers R2 R3 R9 R10 R11 R12 R13 R16 R17
delete
break dsl.ptx:37
continue
cuda thread (7,0,0)
frame
p/x $pc
info registers R2 R3 R9 R10 R11 R12 R13 R16 R17
info locals
delete
continue
